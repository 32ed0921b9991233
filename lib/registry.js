'use strict'
// The provider registry (`SkillRegistry`); its modules live in `./registry/`.

module.exports = require('./registry/index.js')
