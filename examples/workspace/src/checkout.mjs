// A stand-in for the project's code: the skills above are about this project.
export function totalCents(lines) {
  return lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0)
}
