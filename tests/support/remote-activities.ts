import { type TestKith, eventually } from "@kith/core/testing";
import { expect } from "vitest";

export const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/** A Create of the public Note `noteId` by `actor`, saying `html`; the activity's id is the note's with `/activity`. */
export function publicNoteCreate(actor: string, noteId: string, html: string): Record<string, unknown> {
  return {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${noteId}/activity`,
    type: "Create",
    actor,
    to: [PUBLIC],
    object: { type: "Note", id: noteId, attributedTo: actor, content: html, to: [PUBLIC] },
  };
}

/**
 * Waits until no job of the federation queue is ready or running (retries wait for the clock): the first activity
 * of an unknown sender, for one, is handled by a worker.
 */
export async function federationSettled(kith: TestKith): Promise<void> {
  await eventually(async () => {
    const counts = await kith.queue.counts("federation");
    expect(counts.submitted + counts.active).toBe(0);
  });
}
