'use strict'
// Answering a burst of lookups: every lookup gets summaries of its own,
// built when it is answered. Built all at once, a burst of N concurrent
// lookups of one catalog would hold N copies before any caller ran (every
// answer is built before the first caller's code resumes). So answers are
// handed out by turns of the event loop: at most `SUMMARIES_PER_TURN`
// summaries are built per turn (always at least one lookup's), the other
// lookups wait for the next turn, by which time every caller answered in
// this one has run. What is built and not yet taken by its caller is then
// bounded by that budget and the catalog, not by the number of callers
// waiting; lookups are answered in the order they came.

/** Summaries built per turn of the event loop (about 10 MB at ~200 bytes each). */
const SUMMARIES_PER_TURN = 50_000

class Deliveries {
  #budget
  /** Summaries built in this turn so far. */
  #used = 0
  /** Lookups waiting for a later turn, in order: `count, resolve` pairs from `#head` on. */
  #queue = []
  #head = 0
  #scheduled = false

  constructor(budget = SUMMARIES_PER_TURN) {
    this.#budget = budget
  }

  /**
   * Ask to build `count` summaries: `undefined` when they may be built now
   * (in this very turn), else a promise resolved, on a later turn, when they
   * may. Either way they are counted as built.
   * @param {number} count
   * @returns {Promise<void> | undefined}
   */
  admit(count) {
    if (count === 0) return undefined
    if (this.#head === this.#queue.length && this.#fits(count)) {
      this.#used += count
      this.#schedule()
      return undefined
    }
    return new Promise((resolve) => {
      this.#queue.push(count, resolve)
      this.#schedule()
    })
  }

  #fits(count) {
    return this.#used === 0 || this.#used + count <= this.#budget
  }

  /** The end of this turn: the budget is new again, the next lookups are answered. */
  #schedule() {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => this.#turn())
  }

  #turn() {
    this.#scheduled = false
    this.#used = 0
    const queue = this.#queue
    while (this.#head < queue.length && this.#fits(queue[this.#head])) {
      this.#used += queue[this.#head]
      const resolve = queue[this.#head + 1]
      queue[this.#head] = queue[this.#head + 1] = undefined
      this.#head += 2
      resolve()
    }
    if (this.#head === queue.length) {
      this.#queue = []
      this.#head = 0
    }
    // Another turn ends the budget of this one (and answers who still waits).
    if (this.#used > 0) this.#schedule()
  }
}

module.exports = { Deliveries, SUMMARIES_PER_TURN }
