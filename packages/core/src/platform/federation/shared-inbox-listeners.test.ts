import type { DocumentLoader, InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { type Activity, Create, Like } from "@fedify/fedify/vocab";
import { describe, expect, it } from "vitest";
import { assertNothingRefused, requireNetwork } from "./inbox-request-pass.js";
import type { FederationContextData } from "./federation-context-data.js";
import { withSharedListeners } from "./shared-inbox-listeners.js";

type Ctx = InboxContext<FederationContextData>;
type Listener = (ctx: Ctx, activity: Activity) => unknown;

/**
 * How the inbox listeners are run: in the request, with fetches refused, and
 * queued for a worker when they need one or fail; in a worker, as they are.
 * The whole path (real requests, the queue, a worker) is in
 * tests/federation/inbox-in-request.test.ts.
 */
describe("the shared inbox listeners", () => {
  const fetched: string[] = [];
  const network: DocumentLoader = async (url) => {
    fetched.push(url);
    return { contextUrl: null, documentUrl: url, document: {} };
  };

  /** A context as Fedify makes one: `clone` keeps the loader, as InboxContextImpl's does. */
  function contextOf(serving: boolean): Ctx {
    const make = (data: FederationContextData): Ctx => ({ data, documentLoader: network, clone: make }) as unknown as Ctx;
    return make({ serving });
  }

  function setup(listeners: Listener[]) {
    const registered = new Map<unknown, Listener>();
    const inbox = {
      on(type: unknown, listener: Listener) {
        registered.set(type, listener);
        return inbox;
      },
    } as unknown as InboxListenerSetters<FederationContextData>;
    const queued: Activity[] = [];
    const shared = withSharedListeners(inbox, {
      queue: async (_ctx, activity) => {
        queued.push(activity);
      },
    });
    for (const listener of listeners) shared.on(Create, listener as (ctx: Ctx, create: Create) => Promise<void>);
    const dispatch = registered.get(Create) ?? expect.unreachable("no listener for Create");
    return { dispatch, queued };
  }

  const create = new Create({ id: new URL("https://remote.example/activities/1") });

  it("runs every listener in the request and queues nothing when none fetches", async () => {
    const ran: string[] = [];
    const { dispatch, queued } = setup([async () => void ran.push("a"), async () => void ran.push("b")]);
    await dispatch(contextOf(true), create);
    expect(ran).toEqual(["a", "b"]);
    expect(queued).toEqual([]);
  });

  it("refuses a fetch in the request, even one whose failure a listener swallows, and queues the activity", async () => {
    fetched.length = 0;
    const { dispatch, queued } = setup([
      async (ctx) => {
        await ctx.documentLoader("https://remote.example/notes/1").catch(() => null);
      },
    ]);
    await dispatch(contextOf(true), create);
    expect(fetched).toEqual([]);
    expect(queued).toEqual([create]);
  });

  it("serves JSON-LD contexts Fedify ships in the request without queueing", async () => {
    const { dispatch, queued } = setup([
      async (ctx) => {
        const { document } = await ctx.documentLoader("https://www.w3.org/ns/activitystreams");
        expect(document).toHaveProperty("@context");
      },
    ]);
    await dispatch(contextOf(true), create);
    expect(queued).toEqual([]);
  });

  it("keeps a listener from writing after a refused fetch (assertNothingRefused) and queues the activity", async () => {
    const written: string[] = [];
    const { dispatch, queued } = setup([
      async (ctx) => {
        await ctx.documentLoader("https://remote.example/tags/1").catch(() => null);
        assertNothingRefused(ctx);
        written.push("post");
      },
    ]);
    await dispatch(contextOf(true), create);
    expect(written).toEqual([]);
    expect(queued).toEqual([create]);
  });

  it("queues an activity whose listener asks for the network by itself (requireNetwork)", async () => {
    const { dispatch, queued } = setup([
      async (ctx) => {
        requireNetwork(ctx, "https://remote.example/users/new");
      },
    ]);
    await dispatch(contextOf(true), create);
    expect(queued).toEqual([create]);
  });

  it("queues an activity a listener failed on in the request, after the other listeners had their turn", async () => {
    const ran: string[] = [];
    const { dispatch, queued } = setup([
      async () => {
        throw new Error("database is locked");
      },
      async () => void ran.push("b"),
    ]);
    await dispatch(contextOf(true), create);
    expect(ran).toEqual(["b"]);
    expect(queued).toEqual([create]);
  });

  it("fails the request when the activity cannot be queued, so the sender tries again", async () => {
    const registered = new Map<unknown, Listener>();
    const inbox = {
      on(type: unknown, listener: Listener) {
        registered.set(type, listener);
        return inbox;
      },
    } as unknown as InboxListenerSetters<FederationContextData>;
    const shared = withSharedListeners(inbox, {
      queue: async () => {
        throw new Error("queue unavailable");
      },
    });
    shared.on(Like, async () => {
      throw new Error("database is locked");
    });
    const dispatch = registered.get(Like) ?? expect.unreachable("no listener for Like");
    await expect(dispatch(contextOf(true), new Like({}))).rejects.toThrow("queue unavailable");
  });

  it("in a worker, fetches and raises the first error, queueing nothing", async () => {
    fetched.length = 0;
    const { dispatch, queued } = setup([
      async (ctx) => {
        await ctx.documentLoader("https://remote.example/notes/2");
        // Outside a request's pass these do nothing.
        assertNothingRefused(ctx);
        requireNetwork(ctx, "https://remote.example/users/new");
        throw new Error("remote server down");
      },
    ]);
    await expect(dispatch(contextOf(false), create)).rejects.toThrow("remote server down");
    expect(fetched).toEqual(["https://remote.example/notes/2"]);
    expect(queued).toEqual([]);
  });
});
