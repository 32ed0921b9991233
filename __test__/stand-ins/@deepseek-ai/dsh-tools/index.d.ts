/** A parameter of a tool, as the harness describes it to the model. */
export interface ToolParameter {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object'
  required?: boolean
  description: string
}
/** A tool definition. */
export interface ToolDefinition<A = Record<string, unknown>, V = unknown> {
  name: string
  description: string
  parameters: Record<string, ToolParameter>
  output: { schema: object; render(args: A, value: V): { type: 'text'; text: string }[] }
  execute(args: A, exec: { agent?: unknown; signal?: AbortSignal }): Promise<V> | V
  presentCall?(args: A): object
}
export declare function defineTool<A, V>(definition: ToolDefinition<A, V>): ToolDefinition<A, V>
export declare class ToolError extends Error {
  code: string
}
export declare class ToolRegistry {
  register(tool: ToolDefinition<any, any>): () => void
  get(name: string, agent?: unknown): ToolDefinition<any, any> | undefined
  schemas(): { name: string; description: string; parameters: Record<string, ToolParameter> }[]
  call(name: string, args: Record<string, unknown>, exec: { agent?: unknown; signal?: AbortSignal }): Promise<{ view?: object; content: { type: 'text'; text: string }[] }>
}
