/** Where a message came from: `kind` picks the shape (plugins add their own kinds). */
export interface MessageSourceMap {
  user: { kind: 'user' }
}
/** Any known message source. */
export type MessageSource = MessageSourceMap[keyof MessageSourceMap]
/** A user message. */
export interface UserMessage {
  readonly id: string
  readonly role: 'user'
  readonly content: { type: 'text'; text: string }[]
  readonly source: MessageSource
}
export declare function createUserMessage(input: { content: UserMessage['content']; source: MessageSource }): UserMessage
