import { setFlagsFromString } from "node:v8";

/**
 * Turns off V8's allocation-site pretenuring for this process: V8 then always allocates an object in the young
 * generation, as it does by default until an allocation site's objects are seen to outlive young collections.
 *
 * The decision is made from a few young collections' survivors, and a server's first moments (modules loading, the
 * first requests into a young generation of 1-2 MB) can make it for the sites that build a request's envelope (Node's
 * request and response, their headers, the adapter's `Request`). From then on those objects were made in the old
 * generation, and when they died there, V8's young collections still took what they pointed to for live and promoted
 * it: 0.6 MB a young collection under PostgreSQL's home timeline, a full collection every 2 s and a p99 up to four
 * times the usual (47-52 ms against 12-24 ms in alternating runs). A run went one way or the other by chance
 * (bench/HISTORY.md); with pretenuring off, every run measured stayed in the good state. The flag is read when V8
 * weighs the sites' survival, so turning it off at start takes effect for the rest of the process.
 */
export function turnOffPretenuring(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}
