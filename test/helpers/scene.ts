import type { EntityManager } from '@mikro-orm/core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { Role } from '../../src/access';
import type { Tender } from '../../src/tenders';
import { createTender, createWorld, type World } from './fixtures';
import { startGateway, tokenFor, type Gateway } from './gateway';

/** Webhooks polled and retried fast enough to watch within a test, to receivers on loopback. */
const FAST_WEBHOOKS_ENV: Record<string, string> = {
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '50ms,100ms',
  WEBHOOK_URL_ALLOW: '127.0.0.1',
};

/** Three quick retries, a short timeout and lease: for tests that watch deliveries fail, retry and recover. */
export const RETRYING_WEBHOOKS_ENV: Record<string, string> = {
  ...FAST_WEBHOOKS_ENV,
  WEBHOOK_RETRY_SCHEDULE: '50ms,100ms,150ms',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '3000',
};

const WEBHOOKS_ENV = { fast: FAST_WEBHOOKS_ENV, retrying: RETRYING_WEBHOOKS_ENV };

type GatewayOptions = NonNullable<Parameters<typeof startGateway>[0]>;
type TenderOptions = NonNullable<Parameters<typeof createTender>[2]>;

/** Anything a test starts beside the gateway (receivers, simulated insurers, S3 servers). */
interface Closable {
  close(): unknown;
}

export interface SceneOptions extends Omit<GatewayOptions, 'env'> {
  /** 'test' (default): a fresh gateway for every test. 'file': one for the file, for tests that do not need a fresh database. */
  per?: 'test' | 'file';
  /** FAST_WEBHOOKS_ENV or RETRYING_WEBHOOKS_ENV under `env`. */
  webhooks?: keyof typeof WEBHOOKS_ENV;
  env?: Record<string, string>;
  /** The small known world of `createWorld`. */
  world?: boolean;
  /** One tender of broker 0 in that world (implies `world`), with these options. */
  tender?: boolean | TenderOptions | ((world: World) => TenderOptions);
  /** 'manual': the hooks start nothing; each test calls `scene.start(env)` itself (and the hooks still close it). */
  start?: 'manual';
  /** Runs after the gateway, world and tender exist, e.g. to fetch tokens or create the file's own data. */
  setUp?: (scene: Scene) => unknown;
}

export interface Scene {
  readonly gateway: Gateway;
  readonly world: World;
  readonly tender: Tender;
  // Properties, not methods: they use no `this`, so a test may take them apart (`const { token } = scene`).
  em: () => EntityManager;
  /** A token of a new API client; brokers and insurers are bound to the world's first one, or to the given index or binding. */
  token: (role: Role, who?: number | { insurerId?: string; brokerCompanyId?: string }) => Promise<string>;
  /**
   * Closes `thing` when the test ends (with `per: 'file'`, registered in a beforeAll: when the file ends), last started
   * first: before the gateway if started after it, after it if started before it (a server the gateway's env names).
   */
  closes<T extends Closable>(thing: T): T;
  /** Starts the gateway (with `env` over the scene's), world, tender and `setUp`; the hooks do this unless `start: 'manual'`. */
  start(env?: Record<string, string>): Promise<void>;
  /** Closes the gateway of this test and starts a new one with `env` over the scene's. */
  restart(env?: Record<string, string>): Promise<void>;
  /** Stops the gateway, keeping its data, and starts another on its data folder with `options` alone (not the scene's). */
  reopen(options?: Omit<GatewayOptions, 'dataDir'>): Promise<Gateway>;
}

/**
 * The gateway a test file talks to, started and closed by the hooks this registers: call it once at the top level
 * (or in a describe) and read `scene.gateway`, `scene.world`, `scene.tender` in the tests.
 */
export function withGateway(options: SceneOptions = {}): Scene {
  const { per = 'test', webhooks, env, world: wantsWorld, tender: tenderOptions, start: startMode, setUp, ...gatewayOptions } = options;
  let gateway: Gateway | undefined;
  let world: World | undefined;
  let tender: Tender | undefined;
  /** What the scene closes, last started first; the gateway stands among them where it started. */
  const closables: Closable[] = [];
  const gatewayEntry: Closable = { close: () => closeGateway() };
  /** How many of `closables` belong to the file (per: 'file'): those registered before a test began. */
  let fileOwned = 0;

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the scene has no ${what}: ask withGateway for it, or start the scene first`);
    return value;
  };

  const scene: Scene = {
    get gateway() {
      return started(gateway, 'gateway');
    },
    get world() {
      return started(world, 'world');
    },
    get tender() {
      return started(tender, 'tender');
    },
    em: () => scene.gateway.em(),
    token: (role, who = 0) => {
      if (typeof who === 'object') return tokenFor(scene.gateway, role, who);
      if (role === Role.BROKER) return tokenFor(scene.gateway, role, { brokerCompanyId: scene.world.brokers[who].id });
      if (role === Role.INSURER) return tokenFor(scene.gateway, role, { insurerId: scene.world.insurers[who].id });
      return tokenFor(scene.gateway, role);
    },
    closes(thing) {
      closables.push(thing);
      return thing;
    },
    async start(extraEnv = {}) {
      gateway = await startGateway({ ...gatewayOptions, env: { ...(webhooks ? WEBHOOKS_ENV[webhooks] : {}), ...env, ...extraEnv } });
      if (!closables.includes(gatewayEntry)) closables.push(gatewayEntry);
      if (wantsWorld || tenderOptions) world = await createWorld(gateway.em());
      if (tenderOptions) {
        const chosen = typeof tenderOptions === 'function' ? tenderOptions(world!) : tenderOptions === true ? {} : tenderOptions;
        tender = await createTender(gateway.em(), world!, chosen);
      }
      await setUp?.(scene);
    },
    async restart(extraEnv = {}) {
      await closeGateway();
      await scene.start(extraEnv);
    },
    async reopen(reopenOptions = {}) {
      const { dataDir } = scene.gateway;
      await scene.gateway.stop();
      gateway = await startGateway({ ...reopenOptions, dataDir });
      return gateway;
    },
  };

  async function closeGateway() {
    const closing = gateway;
    gateway = world = tender = undefined;
    await closing?.close();
  }

  /** Closes the closables from `from` on, last first; every one is tried, the first failure thrown. */
  async function closeFrom(from: number) {
    const failures: unknown[] = [];
    for (const thing of closables.splice(from).reverse()) {
      await (async () => thing.close())().catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  }

  if (per === 'file') {
    beforeAll(async () => {
      if (startMode !== 'manual') await scene.start();
    });
    // What the file's beforeAll hooks started stays for the file; what a test starts closes after it.
    beforeEach(() => {
      fileOwned = closables.length;
    });
    afterEach(() => closeFrom(fileOwned));
    afterAll(() => closeFrom(0));
  } else {
    if (startMode !== 'manual') beforeEach(() => scene.start());
    afterEach(() => closeFrom(0));
  }
  return scene;
}
