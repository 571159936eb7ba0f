// The median the benchmark reports for scenarios measured a few times over (deliveries, fan-out and streaming posts).

/** The middle value (the lower of the two middle ones for an even count); nulls left out, null for none. */
export function median(values) {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
}
