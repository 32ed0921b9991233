'use strict'
// The generated napi-rs loader (binding.js) picks the addon for this platform.
module.exports = require('../binding.js')
