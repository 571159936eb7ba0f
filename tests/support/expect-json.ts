import { expect } from "vitest";

/**
 * A response body read for inspection in a test. It is loosely typed on
 * purpose: the assertions that follow are what check its shape.
 */
// biome-ignore lint/suspicious/noExplicitAny: bodies are inspected freely and checked by the assertions that follow
export type InspectedJson = any;

/** Asserts the status (showing the body when it differs) and parses the body; an empty body reads as null. */
export async function expectJson(response: Response, status = 200): Promise<InspectedJson> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text === "" ? null : JSON.parse(text);
}
