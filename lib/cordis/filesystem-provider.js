'use strict'
// `FileSystemSkillProvider`: release 0.1.1-rc.2's name for the local
// filesystem provider. Same class behaviour as `LocalSkillProvider`; only the
// default provider name differs (`filesystem` instead of `local`).

const { LocalSkillProvider, isControl } = require('../local.js')

const DEFAULT_NAME = 'filesystem'

/**
 * The local filesystem skill provider under its release 0.1.1-rc.2 name
 * (`name` is `config.providerName`, default `'filesystem'`). Constructed as
 * `new FileSystemSkillProvider(ctx, control, config)` inside a provider
 * factory, or `new FileSystemSkillProvider(config)` on its own.
 */
class FileSystemSkillProvider extends LocalSkillProvider {
  constructor(...args) {
    const at = args.length >= 2 && isControl(args[1]) ? 2 : 0
    const config = args[at]
    // A config without a name gets the default one; anything else (a name,
    // or a config that is not an object) goes to the base class as given.
    if (config === undefined || config === null) {
      args[at] = { providerName: DEFAULT_NAME }
    } else if (typeof config === 'object' && config.providerName === undefined) {
      // Inherit from the caller's config, so its getters and `fs`/`logger`
      // are read as given.
      args[at] = Object.create(config, { providerName: { value: DEFAULT_NAME, enumerable: true } })
    }
    super(...args)
  }
}

module.exports = { FileSystemSkillProvider }
