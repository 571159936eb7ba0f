/** The only source of time for Kith's code, so tests can move time. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}
