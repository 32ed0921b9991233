// Placeholder until the local provider typings land.
export interface LocalSkillProviderConfig {
  readonly dshHome?: string
}
export declare class LocalSkillProvider {
  readonly name: 'local'
  dispose(): Promise<void>
}
