import { createHash } from "node:crypto";
import type { AiProvider, ChatMessage } from "../ports/ai.js";

const DIMENSIONS = 64;

/**
 * An AI provider that needs no network and always answers the same way for
 * the same input: the embedded default, and a dependable partner in tests.
 * Embeddings are hashed bags of words, so similar texts get similar vectors.
 */
export class DeterministicAiProvider implements AiProvider {
  readonly name: string = "deterministic";

  async chat(input: { model?: string; messages: readonly ChatMessage[] }): Promise<{ content: string }> {
    const last = input.messages.findLast((message) => message.role === "user");
    return { content: last ? `You said: ${last.content}` : "Hello." };
  }

  async translate(input: { text: string; from?: string; to: string }): Promise<{ text: string; detectedLanguage: string | null }> {
    return { text: `[${input.to}] ${input.text}`, detectedLanguage: input.from ?? null };
  }

  async embed(input: { model?: string; texts: readonly string[] }): Promise<{ model: string; dimensions: number; vectors: number[][] }> {
    const vectors = input.texts.map((text) => {
      const vector = new Array<number>(DIMENSIONS).fill(0);
      for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
        const digest = createHash("sha256").update(word).digest();
        const slot = (digest[0] ?? 0) % DIMENSIONS;
        vector[slot] = (vector[slot] ?? 0) + ((digest[1] ?? 0) % 2 === 0 ? 1 : -1);
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
    return { model: input.model ?? "deterministic-bow-64", dimensions: DIMENSIONS, vectors };
  }
}
