/**
 * A stream message is rendered once per viewer in a process, however many
 * connections the viewer holds, and once per message: an edit that follows
 * is rendered afresh.
 */
import { MemoryPubSub, streamChannels } from "@kith/core";
import { describe, expect, it } from "vitest";
import type { StatusEntity } from "../../packages/core/src/api/entities/status.js";
import { createFilterMatcher } from "../../packages/core/src/services/filters/filter-matcher.js";
import type { StreamEvent, StreamRenderers } from "../../packages/core/src/services/streaming/stream-connection.js";
import { StreamingService } from "../../packages/core/src/services/streaming/streaming-service.js";

/** Renderers that count their calls; a post renders as its id and the viewer it was rendered for. */
function countingRenderers(): { renderers: StreamRenderers; calls: Record<string, number> } {
  const calls: Record<string, number> = { statuses: 0, hiddenAuthors: 0, filters: 0 };
  const bump = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const renderers: StreamRenderers = {
    async statuses(ids, viewerId) {
      bump("statuses");
      return new Map(
        ids.map((id) => [id, { id, content: `for ${viewerId} #${calls.statuses}`, account: { id: "author", acct: "author" }, reblog: null, media_attachments: [] } as unknown as StatusEntity]),
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
      return new Set();
    },
    async ownsList() {
      return false;
    },
  };
  return { renderers, calls };
}

describe("shared renders of stream messages", () => {
  it("renders a post once for all connections of one viewer, once for each other viewer, and again for the next message", async () => {
    const pubsub = new MemoryPubSub();
    const { renderers, calls } = countingRenderers();
    const streaming = new StreamingService({ pubsub }, renderers);
    const received: { viewer: string; event: StreamEvent }[] = [];
    const viewers = [...Array.from({ length: 50 }, () => "reader"), "other"];
    const connections = viewers.map((viewer) => streaming.connect(viewer, (event) => received.push({ viewer, event })));
    for (const connection of connections) expect((await connection.subscribe("public", {})).ok).toBe(true);

    await pubsub.publish(streamChannels.public(), { event: "update", statusId: "s1" });
    await expect.poll(() => received.length).toBe(51);
    expect(calls).toEqual({ statuses: 2, hiddenAuthors: 2, filters: 2 });
    const payloads = new Set(received.filter((r) => r.viewer === "reader").map((r) => r.event.payload));
    expect(payloads.size).toBe(1);
    expect(JSON.parse([...payloads][0] ?? "{}").content).toMatch(/^for reader/);
    expect(JSON.parse(received.find((r) => r.viewer === "other")?.event.payload ?? "{}").content).toMatch(/^for other/);

    await pubsub.publish(streamChannels.public(), { event: "status.update", statusId: "s1" });
    await expect.poll(() => received.length).toBe(102);
    expect(calls.statuses).toBe(4);
    for (const connection of connections) await connection.close();
    await pubsub.publish(streamChannels.public(), { event: "update", statusId: "s2" });
    expect(calls.statuses).toBe(4);
  });
});
