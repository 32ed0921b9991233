'use strict'
// Terminal output for `dsh-skills`: control characters from skill files shown
// as visible escapes, colour only when the stream is a terminal (honouring
// NO_COLOR and FORCE_COLOR), and names and paths cut with an ellipsis to the
// terminal width. `--json` output does not go through here: it stays byte-exact.

const util = require('node:util')

/** C0 controls except `\n` and `\t`, DEL, and C1 controls (ESC starts every terminal escape sequence). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** `text` with every control character replaced by a visible escape (`\x1b`, `\u009b`). */
function escapeControls(text) {
  return String(text).replace(CONTROL, (c) => {
    const code = c.charCodeAt(0)
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** Whether to colour output written to `stream`. */
function wantsColor(stream, env) {
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
 */
function output(stream, env) {
  const color = wantsColor(stream, env)
  const width = stream.isTTY && stream.columns > 0 ? stream.columns : undefined
  const paint = (text, format) => (color && format ? style(format, text) : text)
  const text = (value) => stream.write(escapeControls(value))
  return {
    color,
    width,
    /** Write text as is, control characters escaped. */
    text,
    line: (value) => text(`${value}\n`),
    /** One line in a colour. */
    styled: (value, format) => stream.write(`${paint(escapeControls(value), format)}\n`),
    warning: (message) => stream.write(`dsh-skills: ${paint('warning:', 'yellow')} ${escapeControls(message)}\n`),
    /**
     * One line of `[text, format]` segments; the last one (a name or a path)
     * is cut to the terminal width.
     */
    fit(segments) {
      const parts = segments.map(([value, format]) => [escapeControls(value), format])
      if (width !== undefined) {
        const fixed = parts.slice(0, -1).reduce((n, [value]) => n + value.length, 0)
        const last = parts[parts.length - 1]
        last[0] = fitCell(last[0], Math.max(8, width - fixed))
      }
      stream.write(`${parts.map(([value, format]) => paint(value, format)).join('')}\n`)
    },
    /** A table whose columns fit the terminal width: the widest shrink first, cut with an ellipsis. */
    table(header, rows) {
      const all = [header, ...rows].map((row) => row.map(escapeControls))
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

module.exports = { escapeControls, wantsColor, fitCell, output }
