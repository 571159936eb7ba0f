import { AsyncLocalStorage } from "node:async_hooks";

/** What serves the global fetch's calls inside `withDeliveryFetch`. */
export type DeliveryFetch = (request: Request) => Promise<Response>;

type GlobalFetch = typeof globalThis.fetch;

/**
 * Marks the global fetch once it diverts. Not `Symbol.for`: a second copy of
 * this module (two copies of the package in one process) must wrap the
 * fetch again for its own context, not take the first copy's for its own.
 */
const DIVERTS = Symbol("kith.deliveryFetch");

const current = new AsyncLocalStorage<DeliveryFetch>();

/**
 * The global fetch, made to hand the calls made inside `withDeliveryFetch`
 * to that call's fetch; every other call goes to the fetch it replaced,
 * unchanged. Installed again when something replaced it meanwhile (a test
 * double, an instrumentation), on top of what is there.
 */
function ensureDiverting(): void {
  const previous: GlobalFetch & { [DIVERTS]?: true } = globalThis.fetch;
  if (previous[DIVERTS]) return;
  const diverting = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const own = current.getStore();
    return own ? own(new Request(input, init)) : previous(input, init);
  };
  globalThis.fetch = Object.assign(diverting, { [DIVERTS]: true as const });
}

/**
 * Runs `work` (Fedify sending deliveries) with every call of the global
 * fetch made in it, and in what it awaits, served by `fetch`.
 *
 * Why: Fedify POSTs activities with the global fetch, called by name, and
 * offers no option to give it another; that fetch resolves and connects on
 * its own and follows redirects. So an inbox could answer with a redirect to
 * a private address, or have its name point to one after the delivery gate
 * checked it, and receive a signed POST there. Inside this, those POSTs go
 * through the inbox sender instead, which checks each address it connects
 * to and follows no redirect.
 */
export function withDeliveryFetch<T>(fetch: DeliveryFetch, work: () => Promise<T>): Promise<T> {
  ensureDiverting();
  return current.run(fetch, work);
}
