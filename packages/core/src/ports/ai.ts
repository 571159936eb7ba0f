/** AI providers: chat completion, translation and embeddings. */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

export interface AiProvider {
  /** A short name for logs and the admin API. */
  readonly name: string;
  chat(input: { model?: string; messages: readonly ChatMessage[] }): Promise<{ content: string }>;
  translate(input: { text: string; from?: string; to: string }): Promise<{ text: string; detectedLanguage: string | null }>;
  /** One vector per input, all of `dimensions` length. */
  embed(input: { model?: string; texts: readonly string[] }): Promise<{ model: string; dimensions: number; vectors: number[][] }>;
}
