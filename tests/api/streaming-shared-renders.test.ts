/**
 * A stream message is rendered once per viewer in a process, however many
 * connections the viewer holds; a public post once for all viewers who have
 * not marked it; and once per message: an edit that follows is rendered
 * afresh. The streaming tests check the shared rendering against the REST
 * API's for the same viewer.
 */
import { MemoryPubSub } from "@kith/core";
import { describe, expect, it } from "vitest";
import type { StatusEntity } from "../../packages/core/src/mastodon/entities/status.js";
import { createFilterMatcher } from "../../packages/core/src/modules/filters/filter-matcher.js";
import type { StreamEvent, StreamRenderers } from "../../packages/core/src/modules/streaming/stream-connection.js";
import { StreamingService } from "../../packages/core/src/modules/streaming/streaming-service.js";
import { streamChannels } from "../../packages/core/src/modules/streaming/channels.js";

/** Renderers that count their calls; a post renders as its id and the viewer it was rendered for. */
function countingRenderers(): { renderers: StreamRenderers; calls: Record<string, number> } {
  const calls: Record<string, number> = { statuses: 0, hiddenAuthors: 0, filters: 0, viewersWithMarks: 0, quoteDecisions: 0 };
  const bump = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const renderers: StreamRenderers = {
    async statuses(ids, viewerId) {
      bump("statuses");
      return new Map(
        ids.map((id) => [
          id,
          {
            id,
            content: `for ${viewerId} #${calls.statuses}`,
            visibility: "public",
            account: { id: "author", acct: "author" },
            reblog: null,
            poll: null,
            media_attachments: [],
            quote_approval: { automatic: ["public"], manual: [], current_user: "unknown" },
          } as unknown as StatusEntity,
        ]),
      );
    },
    async notification() {
      return null;
    },
    async conversation() {
      return null;
    },
    async filters() {
      bump("filters");
      return createFilterMatcher([]);
    },
    async hiddenAuthors() {
      bump("hiddenAuthors");
      return new Map();
    },
    async ownsList() {
      return false;
    },
    async viewersWithMarks(_statusId, viewerIds) {
      bump("viewersWithMarks");
      return new Set(viewerIds.filter((id) => id === "marker"));
    },
    async quoteDecisions(_statusId, viewerIds) {
      bump("quoteDecisions");
      return new Map(viewerIds.map((id) => [id, "automatic"] as const));
    },
  };
  return { renderers, calls };
}

describe("shared renders of stream messages", () => {
  it("renders a public post once for every viewer who has not marked it, once for each who has, and again for the next message", async () => {
    const pubsub = new MemoryPubSub();
    const { renderers, calls } = countingRenderers();
    const streaming = new StreamingService({ pubsub }, renderers);
    const received: { viewer: string; event: StreamEvent }[] = [];
    const viewers = [...Array.from({ length: 50 }, () => "reader"), "other", "marker"];
    const connections = viewers.map((viewer) => streaming.connect(viewer, (event) => received.push({ viewer, event })));
    for (const connection of connections) expect((await connection.subscribe("public", {})).ok).toBe(true);

    await pubsub.publish(streamChannels.public(), { event: "update", statusId: "s1" });
    await expect.poll(() => received.length).toBe(52);
    expect(calls).toEqual({ statuses: 2, hiddenAuthors: 1, filters: 3, viewersWithMarks: 1, quoteDecisions: 1 });
    const payloadOf = (viewer: string) => new Set(received.filter((r) => r.viewer === viewer).map((r) => r.event.payload));
    expect(payloadOf("reader")).toEqual(payloadOf("other"));
    expect(payloadOf("reader").size).toBe(1);
    const shared = JSON.parse([...payloadOf("reader")][0] ?? "{}");
    expect(shared.content).toMatch(/^for null/);
    expect(shared).toMatchObject({ favourited: false, reblogged: false, muted: false, bookmarked: false, pinned: false });
    expect(JSON.parse([...payloadOf("marker")][0] ?? "{}").content).toMatch(/^for marker/);

    await pubsub.publish(streamChannels.public(), { event: "status.update", statusId: "s1" });
    await expect.poll(() => received.length).toBe(104);
    expect(calls.statuses).toBe(4);
    for (const connection of connections) await connection.close();
    await pubsub.publish(streamChannels.public(), { event: "update", statusId: "s2" });
    expect(calls.statuses).toBe(4);
  });
});
