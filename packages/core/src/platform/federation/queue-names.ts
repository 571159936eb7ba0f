import type { HandlerOptions } from "../../ports/queue.js";

// The queues whose jobs need Fedify: named here, without Fedify, so their handlers are registered when the server
// starts and load it with their first job (deferred-federation.ts), whichever process works them.

/** The queue of background fetches of remote statuses' replies. */
export const REPLIES_QUEUE = "remote-replies";

/** The queue of the jobs that send a local poll's results (an Update of its Question) after votes or its end. */
export const POLL_RESULTS_QUEUE = "federation.poll-results";

/** The queue of the Creates a relay forwarded without their author's signature: their objects, fetched from their origin. */
export const FORWARDED_CREATES_QUEUE = "federation.forwarded-creates";

export type FederationJobQueue = typeof REPLIES_QUEUE | typeof POLL_RESULTS_QUEUE | typeof FORWARDED_CREATES_QUEUE;

/** Each such queue's options, as the jobs API shows them. */
export const FEDERATION_JOB_QUEUES: Readonly<Record<FederationJobQueue, HandlerOptions>> = {
  [REPLIES_QUEUE]: { description: "Fetches the replies of a remote post from its server" },
  [FORWARDED_CREATES_QUEUE]: { description: "Fetches from its own server the status of a Create a relay forwarded unsigned by its author" },
  [POLL_RESULTS_QUEUE]: { description: "Sends a local poll's results to the servers that have the post, after votes or its end" },
};
