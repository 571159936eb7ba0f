import { ProfileFeatures } from "./accounts/profile-features.js";
import { NotificationPolicyService } from "./notifications/notification-policy-service.js";
import { AccountService } from "./accounts/account-service.js";
import { AdminAccountService } from "./admin-accounts/admin-account-service.js";
import { SessionService } from "./auth/session-service.js";
import type { ServiceDeps } from "./service-deps.js";
import { PasswordService } from "./credentials/password-service.js";
import { VerificationCodes } from "./credentials/verification-codes.js";
import { LoginAudit } from "./credentials/login-audit.js";
import { LoginMethodService } from "./credentials/login-method-service.js";
import { PasskeyService } from "./passkeys/passkey-service.js";
import { PhoneChangeService } from "./credentials/phone-change-service.js";
import { DomainPolicyService } from "./domain-policy/domain-policy-service.js";
import { FederationMonitor } from "./domain-policy/federation-monitor.js";
import { DomainEvents } from "../platform/events/domain-events.js";
import { FilterService } from "./filters/filter-service.js";
import { SearchService } from "./search/search-service.js";
import { InstanceActivityService } from "./instance/instance-activity-service.js";
import { publishPublicStreams } from "./streaming/stream-publisher.js";
import { streamRenderers } from "./streaming/stream-renderers.js";
import { StreamingService } from "./streaming/streaming-service.js";
import { TagService } from "./tags/tag-service.js";
import { AccountMigrationService } from "./federation/account-migration-service.js";
import { FlagReceipts } from "./federation/flag-receipts.js";
import { FlagSender } from "./federation/flag-sender.js";
import { RemoteAccountService } from "./federation/remote-account-service.js";
import { RelayDirectory } from "./federation/relay-directory.js";
import { InstanceService } from "./instance/instance-service.js";
import { InstancePublications } from "./instance/instance-publications.js";
import { JobsService } from "./jobs/jobs-service.js";
import { MediaService } from "./media/media-service.js";
import { AccountViews } from "./accounts/account-views.js";
import { GroupAccounts } from "./accounts/group-accounts.js";
import { ProfileService } from "./accounts/profile-service.js";
import { BlockMuteService } from "./relationships/block-mute-service.js";
import { FollowService } from "./relationships/follow-service.js";
import { RelationshipService } from "./relationships/relationship-service.js";
import { UserDomainBlockService } from "./relationships/user-domain-blocks.js";
import { OAuthService } from "./auth/oauth-service.js";
import { EmailAllowService } from "./registration/email-allow-service.js";
import { RegistrationService } from "./registration/registration-service.js";
import { AccessBlockDirectory } from "./registration/access-blocks.js";
import { RoleService } from "./roles/role-service.js";
import { SettingsService } from "./settings/settings-service.js";
import { SignupService } from "./registration/signup-service.js";
import { StatusViews } from "./statuses/status-views.js";
import { PostedStatusView } from "./statuses/posted-status-view.js";
import { PollService } from "./statuses/poll-service.js";
import { StatusInteractions } from "./statuses/status-interactions.js";
import { StatusQueries } from "./statuses/status-queries.js";
import { PendingStatusReactions } from "./statuses/pending-status-reactions.js";
import { DeferredSearchEntries } from "./search/deferred-search-entries.js";
import { StatusService } from "./statuses/status-service.js";
import { QuoteService } from "./statuses/quote-service.js";
import { StatusScheduling } from "./statuses/status-scheduling.js";
import { StatusTranslation } from "./statuses/status-translation.js";
import { type FeedServices, createFeedServices } from "./timelines/feed-services.js";
import { BatchedWrites } from "../platform/storage/batched-writes.js";
import { StatusCards } from "./statuses/status-cards.js";

/** Every service of a Kith instance; routes, federation listeners and the CLI all call these. */
export interface KithServices {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly oauth: OAuthService;
  readonly settings: SettingsService;
  readonly instance: InstanceService;
  readonly instancePublications: InstancePublications;
  readonly jobs: JobsService;
  readonly registration: RegistrationService;
  readonly emailAllow: EmailAllowService;
  readonly signups: SignupService;
  readonly roles: RoleService;
  readonly adminAccounts: AdminAccountService;
  /** What happened in the social core, for the parts that react to it (timelines, notifications, streaming, federation). */
  readonly events: DomainEvents;
  /** Writes committed together with the others of the same moment (home rows, incoming activities, notifications). */
  readonly batchedWrites: BatchedWrites;
  /** Content filters (v1 and v2) and the matcher timelines, notifications and streams apply. */
  readonly filters: FilterService;
  /** Full-text search of accounts, hashtags and statuses. */
  readonly search: SearchService;
  /** Mastodon's streaming API (WebSocket and server-sent events) over the pubsub port. */
  readonly streaming: StreamingService;
  /** Known peers and weekly activity of this server. */
  readonly instanceActivity: InstanceActivityService;
  /** Hashtags with their history, and followed tags. */
  readonly tags: TagService;
  /** Renders statuses as Mastodon's Status entity for a viewer, only those the viewer may see, in batches. */
  readonly statusViews: StatusViews;
  /** A new status rendered for its author from what was written. */
  readonly postedStatusView: PostedStatusView;
  /** Writing statuses: create, edit, delete, boost. */
  readonly statuses: StatusService;
  /** Quotes of one's statuses: listing, revoking, who may quote (making one is part of posting). */
  readonly quotes: QuoteService;
  /** Statuses kept to be posted later (`scheduled_at`), refused until a module binds a scheduler. */
  readonly statusScheduling: StatusScheduling;
  /** Translating statuses, unavailable until a module binds a translator. */
  readonly statusTranslation: StatusTranslation;
  /** Preview cards in rendered statuses: bound by the preview-cards module. */
  readonly statusCards: StatusCards;
  /** New statuses whose reactions have not all run, and the job that runs them again after a stop. */
  readonly pendingStatusReactions: PendingStatusReactions;
  /** The full-text entries of other servers' statuses, written a moment after them, many at once (SQLite). */
  readonly searchEntries: DeferredSearchEntries;
  /** Favourites, bookmarks, conversation mutes, pins, reply subscriptions and highlights. */
  readonly statusInteractions: StatusInteractions;
  /** Threads, who boosted or favourited, bookmarks and favourites lists, an account's statuses, edit history. */
  readonly statusQueries: StatusQueries;
  /** Polls: votes, and closing them when they end. */
  readonly polls: PollService;
  /** Timelines (home on fan-out, public, hashtag, list), lists, markers, direct conversations and notifications. */
  readonly timelines: FeedServices["timelines"];
  readonly homeFeed: FeedServices["homeFeed"];
  readonly lists: FeedServices["lists"];
  readonly markers: FeedServices["markers"];
  readonly conversations: FeedServices["conversations"];
  readonly conversationViews: FeedServices["conversationViews"];
  readonly notifications: FeedServices["notifications"];
  readonly notificationViews: FeedServices["notificationViews"];
  /** Notification policies, and the requests of what they filtered. */
  readonly notificationPolicy: NotificationPolicyService;
  readonly feedAccounts: FeedServices["feedAccounts"];
  /** Administrators' domain blocks and allowlist, and the policy inboxes and deliveries apply to a host. */
  readonly domainPolicy: DomainPolicyService;
  /** Delivery outcomes and unreachable domains, inbox metrics, connected domains. */
  readonly federationMonitor: FederationMonitor;
  /** Uploads and media: two-step uploads, Mastodon's media API, processing jobs, quotas, remote media, admin uploads. */
  readonly media: MediaService;
  /** Renders any account, local or remote, as Mastodon's Account entity, many at once. */
  readonly accountViews: AccountViews;
  /** Groups' accounts (a group is also an account to clients): who may see them, and following as joining (answered by the groups module). */
  readonly groupAccounts: GroupAccounts;
  /** Reading and editing one's own profile (`update_credentials`). */
  readonly profiles: ProfileService;
  /** How accounts stand towards each other: Relationship entities, followers and following, blocks, mutes, notes. */
  readonly relationships: RelationshipService;
  /** Following, follow requests and their answers. */
  readonly follows: FollowService;
  /** Blocking and muting accounts. */
  readonly blocksMutes: BlockMuteService;
  /** A user's own domain blocks. */
  readonly userDomainBlocks: UserDomainBlockService;
  /** Password change (signed in) and recovery (signed out), with emailed codes. */
  readonly password: PasswordService;
  /** Login methods (email with password, phone): add with a code, remove unless last. */
  readonly loginMethods: LoginMethodService;
  /** The audit log of login-method and credential changes. */
  readonly loginAudit: LoginAudit;
  /** The four-step phone number change. */
  readonly phoneChange: PhoneChangeService;
  /** Passkeys (WebAuthn): registration, sign-in, listing, deletion. */
  readonly passkeys: PasskeyService;
  /** Remote accounts: resolved by handle or URL, refreshed when stale, their followers and following read from their servers. */
  readonly remoteAccounts: RemoteAccountService;
  /** Aliases and moving an account to another one. */
  readonly migrations: AccountMigrationService;
  /** Sends a Flag (a forwarded report) to a remote account's server. */
  readonly flags: FlagSender;
  /** Where reports other servers send (`Flag`) are filed. */
  readonly flagReceipts: FlagReceipts;
  /** The relays subscribed to, as the federation asks about them (answered by the relays module). */
  readonly relays: RelayDirectory;
  /** Endorsed accounts and featured hashtags, as the profile-feature modules answer (nothing featured without them). */
  readonly profileFeatures: ProfileFeatures;
  /** The blocks on email addresses, email domains and IP addresses, as sign-up and sign-in ask about them (answered by the sign-up-blocks module). */
  readonly accessBlocks: AccessBlockDirectory;
}

export function createServices(deps: ServiceDeps): KithServices {
  const verificationCodes = new VerificationCodes(deps);
  const loginAudit = new LoginAudit(deps);
  const settings = new SettingsService(deps);
  const sessions = new SessionService(deps);
  const accounts = new AccountService(deps, sessions);
  const emailAllow = new EmailAllowService(deps);
  const accessBlocks = new AccessBlockDirectory();
  const statusTranslation = new StatusTranslation();
  const events = new DomainEvents();
  const batchedWrites = new BatchedWrites(deps.storage, BatchedWrites.optionsFor(deps.storage));
  const media = new MediaService(deps);
  const accountViews = new AccountViews(deps, media);
  const statusCards = new StatusCards();
  const statusViews = new StatusViews(deps, accountViews, media, events, statusCards);
  const profileFeatures = new ProfileFeatures();
  const tags = new TagService(deps, profileFeatures);
  publishPublicStreams(events, deps);
  const polls = new PollService(deps, events);
  const remoteAccounts = new RemoteAccountService(deps, accountViews);
  const pendingStatusReactions = new PendingStatusReactions(deps, events, batchedWrites);
  pendingStatusReactions.registerJobs(deps.queue);
  const groupAccounts = new GroupAccounts(deps);
  const statuses = new StatusService(deps, events, polls, media, pendingStatusReactions, batchedWrites, remoteAccounts, groupAccounts);
  const statusInteractions = new StatusInteractions(deps, events, statuses, settings, batchedWrites);
  const statusQueries = new StatusQueries(deps, statuses, statusInteractions, statusViews, accountViews, media);
  const feeds = createFeedServices(deps, events, statusViews, accountViews, batchedWrites);
  const searchEntries = new DeferredSearchEntries(deps.storage);
  const follows = new FollowService(deps, events, groupAccounts);
  // One instance: it keeps each reader's filters, and its changes must reach what it keeps.
  const filters = new FilterService(deps);
  return {
    events,
    batchedWrites,
    media,
    accountViews,
    groupAccounts,
    profiles: new ProfileService(deps, events, media, groupAccounts),
    relationships: new RelationshipService(deps, groupAccounts, profileFeatures),
    follows,
    blocksMutes: new BlockMuteService(deps, events),
    userDomainBlocks: new UserDomainBlockService(deps, events),
    ...feeds,
    notificationPolicy: new NotificationPolicyService(deps, feeds.notificationViews),
    statusViews,
    postedStatusView: new PostedStatusView(deps, accountViews, statusViews),
    statuses,
    quotes: new QuoteService(deps, events, statuses),
    statusScheduling: new StatusScheduling(deps.clock),
    statusTranslation,
    statusCards,
    pendingStatusReactions,
    searchEntries,
    statusInteractions,
    statusQueries,
    polls,
    filters,
    tags,
    search: new SearchService(deps, statusViews, accountViews, tags, searchEntries, groupAccounts, remoteAccounts),
    instanceActivity: new InstanceActivityService(deps, settings),
    streaming: new StreamingService(
      deps,
      streamRenderers(deps, {
        statusViews,
        filters,
        notifications: { find: feeds.notifications, views: feeds.notificationViews },
        conversations: { find: feeds.conversations, views: feeds.conversationViews },
      }),
      sessions,
    ),
    accounts,
    sessions,
    oauth: new OAuthService(deps, sessions, accessBlocks),
    settings,
    instance: new InstanceService(deps, settings),
    instancePublications: new InstancePublications(deps, settings, statusTranslation),
    jobs: new JobsService(deps),
    registration: new RegistrationService(deps, accounts, sessions, settings, emailAllow, accessBlocks),
    emailAllow,
    signups: new SignupService(deps, sessions),
    roles: new RoleService(deps, events),
    adminAccounts: new AdminAccountService(deps, accounts, sessions, events),
    domainPolicy: new DomainPolicyService(deps, settings, events),
    federationMonitor: new FederationMonitor(deps),
    password: new PasswordService(deps, verificationCodes, loginAudit, sessions),
    loginMethods: new LoginMethodService(deps, verificationCodes, loginAudit, sessions),
    loginAudit,
    phoneChange: new PhoneChangeService(deps, verificationCodes, loginAudit),
    passkeys: new PasskeyService(deps, sessions, loginAudit, accessBlocks),
    remoteAccounts,
    migrations: new AccountMigrationService(deps, events, remoteAccounts, follows),
    flags: new FlagSender(deps, remoteAccounts),
    flagReceipts: new FlagReceipts(deps),
    relays: new RelayDirectory(),
    profileFeatures,
    accessBlocks,
  };
}

export type { ServiceDeps };
