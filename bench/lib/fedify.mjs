// Fedify as @kith/core uses it (the same version), for the scripts of the
// benchmark that stand for other servers: the workspace root does not
// depend on it, so it is loaded from the core package's dependencies.

const DIST = new URL("../../packages/core/node_modules/@fedify/fedify/dist/", import.meta.url);

/** Fedify's entry points the benchmark uses: request signatures, keys and the vocabulary's key type. */
export async function fedify() {
  const [main, vocab] = await Promise.all([import(new URL("mod.js", DIST).href), import(new URL("vocab/mod.js", DIST).href)]);
  return { verifyRequest: main.verifyRequest, fetchKey: main.fetchKey, CryptographicKey: vocab.CryptographicKey };
}
