/** What other modules use of streaming: who a viewer does not want to see, as streams leave them out. */
export { hiddenAuthorIds } from "./stream-audience-store.js";
export { type StreamMessage, streamChannels } from "./channels.js";
