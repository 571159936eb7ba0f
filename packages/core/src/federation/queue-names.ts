// The queues whose handlers exist only once Fedify is loaded: named here, without Fedify, so a server that starts
// with jobs waiting on them loads it at once.

/** The queue of background fetches of remote posts' replies. */
export const REPLIES_QUEUE = "remote-replies";

/** The queue of the jobs that send a local poll's results (an Update of its Question) after votes or its end. */
export const POLL_RESULTS_QUEUE = "federation.poll-results";
