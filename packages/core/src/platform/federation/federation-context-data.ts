/** What Kith passes to every Fedify callback. */
export interface FederationContextData {
  /** True while answering an HTTP request; false for work Kith starts itself (deliveries, fan-out). */
  readonly serving: boolean;
}
