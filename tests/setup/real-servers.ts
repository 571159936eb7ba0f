// Placeholder: replaced by the real PostgreSQL/Redis harness.
export default async function setup(): Promise<void> {}
