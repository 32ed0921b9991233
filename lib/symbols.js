'use strict'
// Internal symbols shared by the JS modules of this package (not public API).

/** The native handle behind a JS wrapper (for example a `LocalSkillProvider`). */
exports.kNative = Symbol.for('dsh-skill-native.native')
/** Set by the registry on a provider it registered: unregisters it (called by `dispose()`). */
exports.kOnDispose = Symbol.for('dsh-skill-native.onDispose')
/** Called by the registry with the `control` of a JS registration (a `LocalSkillProvider` with a filesystem service). */
exports.kAttach = Symbol.for('dsh-skill-native.attach')
/** A provider's own logger, used for the warnings of its native discovery. */
exports.kLogger = Symbol.for('dsh-skill-native.logger')
/** `true` once a provider of this package was disposed: the registry refuses to register it again. */
exports.kDisposed = Symbol.for('dsh-skill-native.disposed')
/**
 * `registry[kCatalogView](options)`: the view's catalog without building its
 * summaries (`{ view, complete }`, `view` an opaque token the catalog
 * renderers read straight from the native catalog). For this package's own
 * consumers (the `skill` tool plugin).
 */
exports.kCatalogView = Symbol.for('dsh-skill-native.catalogView')
