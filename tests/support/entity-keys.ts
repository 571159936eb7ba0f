/**
 * The parts of a zod schema this walk reads (zod 4 keeps them on `_zod.def`),
 * typed here so tests need no direct dependency on zod.
 */
interface SchemaLike {
  readonly _zod: { readonly def: { readonly type: string; readonly innerType?: SchemaLike; readonly element?: SchemaLike } };
  readonly shape?: Readonly<Record<string, SchemaLike>>;
}

/**
 * The dot paths of every key an entity schema declares that `value` lacks,
 * walking nested objects and the elements of arrays. Clients crash on
 * missing keys, so an entity must carry every one, null where it has nothing.
 */
export function missingKeys(schema: SchemaLike, value: unknown, path = ""): string[] {
  const def = schema._zod.def;
  switch (def.type) {
    case "nullable":
      return value === null || !def.innerType ? [] : missingKeys(def.innerType, value, path);
    case "optional":
    case "default":
      return def.innerType ? missingKeys(def.innerType, value, path) : [];
    case "array": {
      const element = def.element;
      return element && Array.isArray(value) ? value.flatMap((item, index) => missingKeys(element, item, `${path}[${index}]`)) : [];
    }
    case "object": {
      if (typeof value !== "object" || value === null) return [];
      const record = value as Record<string, unknown>;
      return Object.entries(schema.shape ?? {}).flatMap(([key, child]) => {
        const childPath = path ? `${path}.${key}` : key;
        return record[key] === undefined ? [childPath] : missingKeys(child, record[key], childPath);
      });
    }
    default:
      return [];
  }
}
