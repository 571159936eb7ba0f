import type { Context, InboxListenerSetters } from "@fedify/fedify";
import type * as Vocabulary from "@fedify/fedify/vocab";
import type { ForbiddenContext, HandlerContext, RouteDefinition } from "../platform/http/route.js";
import type { FederationContextData } from "../platform/federation/federation-context-data.js";
import type { HandlerOptions, JobHandler } from "../ports/queue.js";
import type { ServiceDeps } from "./service-deps.js";
import type { DomainEvents } from "../platform/events/domain-events.js";
import type { KithServices } from "./core-services.js";
import type { MigrationSpec } from "../ports/migration-spec.js";

/**
 * The instance's federation as a module reaches it: loaded on first use (a
 * module must not import Fedify at run time, which is loaded on the first
 * federation request, job or event).
 */
export interface ModuleFederation {
  /** A context for work outside a request: sending activities as the instance actor or a local account. */
  context(): Promise<Context<FederationContextData>>;
  /** Fetches a remote object by URL or handle, signed by the instance actor; null when it cannot be found. */
  lookup(identifier: string): Promise<Vocabulary.Object | null>;
}

/** Fedify's ActivityStreams vocabulary, given to a module's inbox listeners (loaded with the federation). */
export type ModuleVocabulary = typeof Vocabulary;

/**
 * An application a module offers at a group's entry point: installed in a
 * group (GroupApps.Manage), it turns the module's feature on there, and the
 * module's routes for that group answer 404 while it is not.
 */
export interface GroupAppDeclaration {
  /** Unique among the composed modules' applications; `[a-z][a-z0-9-]*`. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Installed in every group until its managers uninstall it. @default false */
  readonly defaultInstalled?: boolean;
}

/** What a module's services are built from. */
export interface ModuleContext {
  /** The ports and configuration of the instance. */
  readonly deps: ServiceDeps;
  /** The services of the social core (accounts, statuses, timelines...). */
  readonly core: KithServices;
  /** What happened in the social core; a module reacts to it in `events`. */
  readonly events: DomainEvents;
  /** The federation, loaded when first used. */
  readonly federation: ModuleFederation;
  /** The services of a module this one `requires`. */
  use<S>(module: KithModule<string, S>): S;
  /** Every module of the instance, in their order: what a module offering a catalog of the others' declarations reads. */
  readonly modules: readonly KithModule<string, unknown>[];
}

/** What a module's route handler gets: the usual context, and its own module's services. */
export interface ModuleHandlerContext<S, P, Q, B> extends HandlerContext<P, Q, B, KithServices> {
  readonly module: S;
}

/** What a module route's `whenForbidden` gets: the usual context, and its own module's services. */
export interface ModuleForbiddenContext<S> extends ForbiddenContext<KithServices> {
  readonly module: S;
}

/** A route of a module: a route whose handler (and `whenForbidden`) also gets the module's services. */
export interface ModuleRouteDefinition<S, P = unknown, Q = unknown, B = unknown>
  extends Omit<RouteDefinition<P, Q, B>, "handler" | "whenForbidden"> {
  whenForbidden?(context: ModuleForbiddenContext<S>): Promise<void>;
  handler(context: ModuleHandlerContext<S, P, Q, B>): ReturnType<RouteDefinition<P, Q, B>["handler"]>;
}

/** A module route of any input types, as a module's list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds routes of every input type; each is checked where declared.
export type AnyModuleRoute<S> = ModuleRouteDefinition<S, any, any, any>;

/** A worker of a queue a module owns, optionally run on a schedule. */
export interface ModuleJob {
  readonly queue: string;
  readonly handler: JobHandler;
  readonly options?: HandlerOptions;
  /** Runs the job every so many milliseconds, from `start()` on (a repeating job named after its queue). */
  readonly everyMs?: number;
}

/**
 * A feature module: one folder under `src/modules/<name>/` (or a package of
 * its own) that brings its tables, services, routes, jobs and reactions,
 * declared once in its `index.ts`. `createKith` composes the modules it is
 * given, in order: a module comes after those it `requires`.
 */
export interface KithModule<Name extends string = string, S = unknown> {
  /** Unique among the composed modules; `[a-z][a-z0-9-]*`. */
  readonly name: Name;
  /** Modules whose services this one uses (`context.use`); they must be composed before it. */
  readonly requires?: readonly KithModule<string, unknown>[];
  /**
   * The module's tables, listed after the core's migrations and the modules'
   * before it. They run in their names' order (`<module>_NNNN_<what>`, which
   * sorts after the core's numbers), so a module whose tables reference
   * another module's must sort after it. Names never change once released.
   */
  readonly migrations?: readonly MigrationSpec[];
  /** Builds the module's services once per instance. */
  services(context: ModuleContext): S;
  /** The applications the module offers groups (see `GroupAppDeclaration`); the groups module lists them in its catalog. */
  readonly groupApps?: readonly GroupAppDeclaration[];
  /** The module's endpoints, served beside the core's and listed in the reference. */
  readonly routes?: readonly AnyModuleRoute<S>[];
  /** The workers of the queues the module owns. */
  jobs?(services: S): readonly ModuleJob[];
  /**
   * Listens for activities in the inboxes, beside the core's listeners: a
   * type several parts listen for goes to each of them in turn. Listeners
   * run as the core's do: first in the request, where fetching another
   * server's documents is not allowed, then on the queue when they need to.
   * `vocab` is the vocabulary to name the types by, which a module's file
   * must not import itself (see `ModuleFederation`).
   */
  inbox?(services: S, inbox: InboxListenerSetters<FederationContextData>, vocab: ModuleVocabulary): void;
  /** Subscribes the module to the core's domain events. */
  events?(services: S, events: DomainEvents): void;
  /** Runs when the instance starts its background work, after the core's. */
  start?(services: S): Promise<void>;
  /** Runs when the instance closes, before the ports close. */
  stop?(services: S): Promise<void>;
}

/** Declares a feature module; only checks its name, the rest is checked when composed. */
export function defineModule<const Name extends string, S>(module: KithModule<Name, S>): KithModule<Name, S> {
  if (!/^[a-z][a-z0-9-]*$/.test(module.name)) throw new Error(`Module name ${module.name} is not [a-z][a-z0-9-]*`);
  return module;
}

/** A route of a module, its handler's input types inferred from its schemas as `route` infers them. */
export function moduleRoute<S>() {
  return <P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(
    definition: ModuleRouteDefinition<S, P, Q, B>,
  ): ModuleRouteDefinition<S, P, Q, B> => definition;
}
