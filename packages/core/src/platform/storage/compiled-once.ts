import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/**
 * The values a statement takes: strings and lists of them (a list may hold
 * null), put in markers' places; numbers, flags, null and absent values are
 * part of the shape instead (a page's limit, a bound that is or is not given,
 * a column left empty), so each is compiled as it is.
 */
export type StatementArgs = Readonly<Record<string, string | readonly (string | null)[] | number | boolean | null | undefined>>;

/** Shapes kept per dialect and plugins; a shape is one statement for one combination of list lengths. */
const SHAPES_PER_HANDLE = 2_000;

/** Marks a value's place while a shape is compiled; no id holds a NUL. */
const MARKER = "\u0000";

/**
 * A read statement of the busiest pages, built and compiled by Kysely once
 * per shape instead of on every request: building and compiling the
 * visibility check or the viewer's marks cost about as much as SQLite takes
 * to run them. The shape is built with markers in place of the values (a
 * list of n ids is n markers, so each list length is its own shape) and
 * running it puts the real values in the markers' places; values the builder
 * wrote itself (constants, flags) stay as they were compiled. The cache is
 * kept per dialect and set of plugins, since plugins may rewrite what a handle
 * compiles; a transaction's handle shares its database's. Plugins still see
 * every result.
 */
export function compiledOnce<A extends StatementArgs, R>(
  build: (db: Kysely<Database>, args: A) => Compilable<R>,
): (db: Kysely<Database>, args: A) => Promise<R[]> {
  const compilers = new CompilerShapes<R>();
  return async (db, args) => {
    const shapes = compilers.of(db);
    const key = shapeKey(args);
    let shape = shapes.get(key);
    if (!shape) {
      const compiled = build(db, markersFor(args)).compile();
      shape = { compiled, places: compiled.parameters.map(placeOf) };
      if (shapes.size >= SHAPES_PER_HANDLE) shapes.clear();
      shapes.set(key, shape);
    }
    const result = await db.executeQuery<R>({ ...shape.compiled, parameters: shape.places.map((place) => valueAt(place, args)) });
    return result.rows;
  };
}

/**
 * The shapes compiled by each dialect (its adapter, one per database handle)
 * and chain of plugins: a transaction gets a handle of its own, with a copy
 * of its database's plugins, and compiles as the database does.
 */
class CompilerShapes<R> {
  readonly #byAdapter = new WeakMap<object, PluginNode<R>>();

  of(db: Kysely<Database>): Map<string, Shape<R>> {
    const executor = db.getExecutor();
    let node: PluginNode<R> = nodeIn(this.#byAdapter, executor.adapter);
    for (const plugin of executor.plugins) node = nodeIn(node.next, plugin);
    return node.shapes;
  }
}

interface PluginNode<R> {
  readonly shapes: Map<string, Shape<R>>;
  readonly next: WeakMap<object, PluginNode<R>>;
}

function nodeIn<R>(nodes: WeakMap<object, PluginNode<R>>, key: object): PluginNode<R> {
  let node = nodes.get(key);
  if (!node) {
    node = { shapes: new Map(), next: new WeakMap() };
    nodes.set(key, node);
  }
  return node;
}

/** A compiled shape and, for each of its parameters, where its value comes from (read once, not on every run). */
interface Shape<R> {
  readonly compiled: CompiledQuery<R>;
  readonly places: readonly Place[];
}

/** A value the builder wrote itself, or the argument (and item of a list) a marker stands for. */
type Place = { readonly constant: unknown } | { readonly name: string; readonly index: number };

function placeOf(parameter: unknown): Place {
  if (typeof parameter !== "string" || !parameter.startsWith(MARKER)) return { constant: parameter };
  const [name = "", index] = parameter.slice(1).split(MARKER);
  return { name, index: index === undefined ? -1 : Number(index) };
}

function shapeKey(args: StatementArgs): string {
  let key = "";
  for (const name in args) {
    const value = args[name];
    if (typeof value === "string") key += `${name}:s;`;
    else if (typeof value === "number" || typeof value === "boolean") key += `${name}=${value};`;
    else if (value === undefined) key += `${name}:u;`;
    else if (value === null) key += `${name}:n;`;
    else key += `${name}:${value.length};`;
  }
  return key;
}

function markersFor<A extends StatementArgs>(args: A): A {
  const markers: Record<string, StatementArgs[string] | string[]> = {};
  for (const name in args) {
    const value: StatementArgs[string] = args[name];
    if (typeof value === "string") markers[name] = `${MARKER}${name}`;
    else if (typeof value !== "object" || value === null) markers[name] = value;
    else markers[name] = value.map((_, index) => `${MARKER}${name}${MARKER}${index}`);
  }
  return markers as A;
}

function valueAt(place: Place, args: StatementArgs): unknown {
  if ("constant" in place) return place.constant;
  const value = args[place.name];
  if (typeof value === "string") return value;
  const item = typeof value === "object" && value !== null ? value[place.index] : undefined;
  if (item === undefined) throw new Error(`No value for the statement's parameter ${place.name}[${place.index}]`);
  return item;
}
