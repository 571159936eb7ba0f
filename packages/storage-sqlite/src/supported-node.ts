/**
 * The Node.js versions better-sqlite3's native module is built and tested for here. Loaded by another (Node 20, say)
 * a native module compiled for a newer ABI can crash the process; the check comes first, and fails in one line.
 */
export const MIN_NODE_MAJOR = 22;

/** Throws one line naming the Node.js version when it is older than the supported ones. */
export function assertSupportedNode(version: string = process.versions.node): void {
  const major = Number(version.split(".")[0]);
  if (!Number.isInteger(major) || major < MIN_NODE_MAJOR) {
    throw new Error(`@kith/storage-sqlite needs Node.js ${MIN_NODE_MAJOR} or newer; this is Node.js ${version}`);
  }
}
