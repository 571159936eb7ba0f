import type { HandlerOptions } from "../../ports/queue.js";

// The queues whose jobs need Fedify: named here, without Fedify, so their handlers are registered when the server
// starts and load it with their first job (deferred-federation.ts), whichever process works them.

/** The queue of background fetches of remote posts' replies. */
export const REPLIES_QUEUE = "remote-replies";

/** The queue of the jobs that send a local poll's results (an Update of its Question) after votes or its end. */
export const POLL_RESULTS_QUEUE = "federation.poll-results";

export type FederationJobQueue = typeof REPLIES_QUEUE | typeof POLL_RESULTS_QUEUE;

/** Each such queue's options, as the jobs API shows them. */
export const FEDERATION_JOB_QUEUES: Readonly<Record<FederationJobQueue, HandlerOptions>> = {
  [REPLIES_QUEUE]: { description: "Fetches the replies of a remote post from its server" },
  [POLL_RESULTS_QUEUE]: { description: "Sends a local poll's results to the servers that have the post, after votes or its end" },
};
