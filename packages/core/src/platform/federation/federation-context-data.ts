import type { FetchSigner } from "./fetch-signer.js";

/** What Kith passes to every Fedify callback. */
export interface FederationContextData {
  /** True while answering an HTTP request; false for work Kith starts itself (deliveries, fan-out). */
  readonly serving: boolean;
  /**
   * Who signed the GET being answered, its signature verified on the first
   * call (fetching the signer's key if need be); absent outside requests.
   */
  readonly fetchSigner?: () => Promise<FetchSigner>;
}
