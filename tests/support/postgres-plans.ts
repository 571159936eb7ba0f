/** One plan node of PostgreSQL's `EXPLAIN (FORMAT JSON)`, with the fields the plan tests read. */
export interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly "Parent Relationship"?: string;
  readonly Filter?: string;
  readonly "Join Filter"?: string;
  readonly Plans?: readonly PlanNode[];
}

/** The node and every node below it. */
export function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The top node of what `EXPLAIN (FORMAT JSON)` answered, whether the driver parsed the JSON or left it as text. */
export function planOf(explained: unknown): PlanNode {
  const document = typeof explained === "string" ? (JSON.parse(explained) as unknown) : explained;
  const plan = (document as readonly { Plan?: PlanNode }[] | undefined)?.[0]?.Plan;
  if (!plan) throw new Error(`no plan in ${JSON.stringify(explained)}`);
  return plan;
}
