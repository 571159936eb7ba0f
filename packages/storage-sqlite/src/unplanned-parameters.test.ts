import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapSqliteDatabase } from "./sqlite-database.js";
import { withUnplannedParameters } from "./unplanned-parameters.js";

describe("parameters SQLite does not re-plan on", () => {
  it("writes each parameter +?, leaving quoted strings, identifiers and comments alone", () => {
    expect(withUnplannedParameters("select a from t where b = ? limit ?")).toBe("select a from t where b = +? limit +?");
    expect(withUnplannedParameters(`select '?', 'it''s ?', "c?", \`d?\`, [e?] from t where f in (?, ?)`)).toBe(
      `select '?', 'it''s ?', "c?", \`d?\`, [e?] from t where f in (+?, +?)`,
    );
    expect(withUnplannedParameters("select ? -- a comment's ?\n, ? /* and ? */ from t")).toBe(
      "select +? -- a comment's ?\n, +? /* and ? */ from t",
    );
    expect(withUnplannedParameters("select 1")).toBe("select 1");
  });

  describe("statements keep their results", () => {
    let raw: BetterSqlite3.Database;
    const prepared: string[] = [];
    let db: ReturnType<typeof wrapSqliteDatabase>;

    beforeAll(() => {
      raw = new BetterSqlite3(":memory:");
      raw.exec(`
        CREATE TABLE people (id TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL);
        CREATE TABLE pets (owner TEXT NOT NULL, name TEXT NOT NULL);
        CREATE INDEX pets_owner ON pets (owner);
        INSERT INTO people VALUES ('p1', 'Ann', 31), ('p2', 'bob', 40), ('p3', 'Cy?', 25);
        INSERT INTO pets VALUES ('p1', 'Rex'), ('p1', 'Tom'), ('p2', 'Kit');
        CREATE VIRTUAL TABLE notes USING fts5(body);
        INSERT INTO notes (rowid, body) VALUES (1, 'green apples'), (2, 'red apples'), (3, 'green pears');
      `);
      // The wrapper as Kysely sees it, with the text SQLite was given recorded.
      const prepare = raw.prepare.bind(raw);
      db = wrapSqliteDatabase(
        new Proxy(raw, {
          get: (target, property) =>
            property === "prepare"
              ? (text: string) => {
                  prepared.push(text);
                  return prepare(text);
                }
              : Reflect.get(target, property),
        }),
      );
    });
    afterAll(() => raw.close());

    const all = (text: string, parameters: unknown[]) => db.prepare(text).all(parameters);

    it("gives SQLite each parameter as +?", () => {
      all("select id from people where id = ?", ["p1"]);
      expect(prepared.at(-1)).toBe("select id from people where id = +?");
    });

    it("joins, limits and offsets, lists, ranges, collations, LIKE and full-text matches", () => {
      const join =
        "select pets.name from people join pets on pets.owner = people.id where people.id = ? order by pets.name limit ? offset ?";
      expect(all(join, ["p1", 1, 1])).toEqual([{ name: "Tom" }]);
      expect(all(join, ["p1", 5, 0])).toEqual([{ name: "Rex" }, { name: "Tom" }]);
      expect(all("select id from people where id in (?, ?) and age between ? and ? order by id", ["p1", "p2", 30, 35])).toEqual([
        { id: "p1" },
      ]);
      expect(all("select id from people where name = ? collate nocase", ["BOB"])).toEqual([{ id: "p2" }]);
      expect(all("select id from people where name like ? and name <> '?' order by id", ["%?"])).toEqual([{ id: "p3" }]);
      expect(all("select rowid as id from notes where notes match ? order by rowid", ["green"])).toEqual([{ id: 1 }, { id: 3 }]);
      // No affinity, as with a bare parameter: a number compared with a text column is compared as text.
      expect(all("select id from people where age = ?", ["40"])).toEqual([{ id: "p2" }]);
      expect(all("select ? || '?' as joined, -? as negated", ["a", 2])).toEqual([{ joined: "a?", negated: -2 }]);
    });

    it("writes", () => {
      db.prepare("insert into pets (owner, name) values (?, ?)").run(["p3", "Ox"]);
      db.prepare("update people set age = age + ? where id = ?").run([1, "p3"]);
      expect(all("select people.age, pets.name from people join pets on pets.owner = people.id where people.id = ?", ["p3"])).toEqual([
        { age: 26, name: "Ox" },
      ]);
    });
  });
});
