'use strict'
// The native addon: the generated napi-rs loader (binding.js) picks the addon
// for this platform; a failure to load it is explained (lib/addon.js).
module.exports = require('./addon.js').loadAddon()
