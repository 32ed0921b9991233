'use strict'
// Terminal output for `dsh-skills`: characters from skill files that could
// rewrite, reorder or hide what the terminal shows are printed as visible
// escapes; colour only when the stream is a terminal (honouring --color,
// NO_COLOR and FORCE_COLOR); names and paths cut with an ellipsis to the
// terminal width. `--json` output does not go through here: it stays byte-exact.

const util = require('node:util')

/**
 * What is never written raw to a terminal:
 * - C0 controls except `\n` and `\t`, DEL and C1 controls (ESC and CSI start
 *   every terminal escape sequence; U+0085 is a line break);
 * - Unicode format characters (category Cf): the bidi controls U+202A–U+202E,
 *   U+2066–U+2069, U+200E, U+200F and U+061C, which reorder text; the
 *   zero-width U+200B–U+200D, U+2060–U+2064 and U+FEFF, the soft hyphen and the
 *   tag characters, which hide it;
 * - the line and paragraph separators U+2028 and U+2029;
 * - the other default-ignorable code points, which render as nothing (the
 *   Hangul fillers U+115F, U+1160, U+3164, U+FFA0, U+034F, ...), except the
 *   variation selectors, which only pick a glyph (emoji presentation).
 */
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]|(?!\p{Variation_Selector})\p{Default_Ignorable_Code_Point}/gu
/** The same, and the line break and tab too: for text that must stay one line (names, paths, table cells). */
// eslint-disable-next-line no-control-regex
const HIDDEN_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]|(?!\p{Variation_Selector})\p{Default_Ignorable_Code_Point}/gu

/** The visible escape of one character: `\x1b`, `\u202e`, `\u{e0041}`. */
function visible(c) {
  const code = c.codePointAt(0)
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`
  return `\\u{${code.toString(16)}}`
}

/** `text` with every character of {@link HIDDEN} replaced by its visible escape; line breaks and tabs stay. */
function escapeControls(text) {
  return String(text).replace(HIDDEN, visible)
}

/** `text` as one line: {@link escapeControls}, and line breaks and tabs escaped too (`\x0a`, `\x09`). */
function escapeLine(text) {
  return String(text).replace(HIDDEN_OR_BREAK, visible)
}

/**
 * Whether to colour output written to `stream`: `--color always|never` decide;
 * `auto` (the default) colours a terminal unless NO_COLOR is set or TERM is
 * `dumb`, and FORCE_COLOR forces it either way.
 * @param {{ isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} env
 * @param {'auto' | 'always' | 'never'} [mode]
 */
function wantsColor(stream, env, mode = 'auto') {
  if (mode === 'always') return true
  if (mode === 'never') return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return Boolean(stream.isTTY) && env.TERM !== 'dumb'
}

/** SGR codes for Node versions without `util.styleText` (it landed in 20.12). */
const FALLBACK = { green: [32, 39], yellow: [33, 39], red: [31, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22] }

function style(format, text) {
  if (typeof util.styleText === 'function') return util.styleText(format, text, { validateStream: false })
  const [open, close] = FALLBACK[format]
  return `\u001b[${open}m${text}\u001b[${close}m`
}

/** `text` cut to `width` characters, the last one an ellipsis when cut. */
function fitCell(text, width) {
  if (width === undefined || text.length <= width) return text
  if (width <= 1) return '…'.slice(0, Math.max(0, width))
  return `${text.slice(0, width - 1)}…`
}

/**
 * @typedef {ReturnType<typeof output>} Output
 * @param {NodeJS.WritableStream & { isTTY?: boolean, columns?: number }} stream
 * @param {NodeJS.ProcessEnv} env
 * @param {'auto' | 'always' | 'never'} [colorMode] `--color`
 */
function output(stream, env, colorMode) {
  const color = wantsColor(stream, env, colorMode)
  const width = stream.isTTY && stream.columns > 0 ? stream.columns : undefined
  const paint = (text, format) => (color && format ? style(format, text) : text)
  return {
    color,
    width,
    /** Write text of several lines (a catalog message, a skill body): line breaks and tabs stay, the rest is escaped. */
    text: (value) => stream.write(escapeControls(value)),
    /** Write one line: a line break or tab inside `value` is escaped too, so a name cannot start a line of its own. */
    line: (value) => stream.write(`${escapeLine(value)}\n`),
    /**
     * Several lines (each as {@link line} writes it), then `tail` as
     * {@link text} writes it, in one write: a reader of a pipe never sees
     * half of a report.
     */
    lines: (values, tail = '') => stream.write(`${values.map((value) => `${escapeLine(value)}\n`).join('')}${escapeControls(tail)}`),
    /** One line in a colour. */
    styled: (value, format) => stream.write(`${paint(escapeLine(value), format)}\n`),
    warning: (message) => stream.write(`dsh-skills: ${paint('warning:', 'yellow')} ${escapeLine(message)}\n`),
    /**
     * One line of `[text, format]` segments; the last one (a name or a path)
     * is cut to the terminal width.
     */
    fit(segments) {
      const parts = segments.map(([value, format]) => [escapeLine(value), format])
      if (width !== undefined) {
        const fixed = parts.slice(0, -1).reduce((n, [value]) => n + value.length, 0)
        const last = parts[parts.length - 1]
        last[0] = fitCell(last[0], Math.max(8, width - fixed))
      }
      stream.write(`${parts.map(([value, format]) => paint(value, format)).join('')}\n`)
    },
    /** A table whose columns fit the terminal width: the widest shrink first, cut with an ellipsis. */
    table(header, rows) {
      const all = [header, ...rows].map((row) => row.map(escapeLine))
      const widths = header.map((_, col) => Math.max(...all.map((row) => row[col].length)))
      if (width !== undefined) {
        let over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - width
        while (over > 0) {
          const widest = widths.indexOf(Math.max(...widths))
          if (widths[widest] <= 6) break
          widths[widest]--
          over--
        }
      }
      const lines = all.map((row, r) =>
        row
          .map((cell, col) => {
            const fitted = fitCell(cell, widths[col])
            const padded = col === row.length - 1 ? fitted : fitted.padEnd(widths[col])
            return r === 0 ? paint(padded, 'bold') : padded
          })
          .join('  ')
          .trimEnd(),
      )
      stream.write(`${lines.join('\n')}\n`)
    },
  }
}

module.exports = { escapeControls, escapeLine, wantsColor, fitCell, output }
