import path from 'node:path';
import type { LongTermMemoryStore } from '@oryxos/contracts';
import type { FileMemoryStore, FileMemoryStoreOptions } from './file-store.ts';
import { DEFAULT_ROTATE_BYTES, agentPaths, defaultSessionsDir, sessionDirOf } from './paths.ts';

type Store = FileMemoryStore;

/**
 * The `memory` service of the plugin: a {@link FileMemoryStore} whose code (parsing, locks,
 * rotation, search) is loaded on its first read or write, so a command that never touches
 * memory (`oryx agents`, `oryx tools`) does not compile it. It has the store's methods and
 * properties; once loaded, each method calls the store's directly (no extra `await`).
 */
export class LazyMemoryStore implements LongTermMemoryStore {
  readonly workspaceDir: string;
  readonly coreMaxChars: number;
  readonly rotateBytes: number;
  #sessionsDir: string;
  #store: Store | undefined;
  #loading: Promise<Store> | undefined;

  constructor(private readonly options: FileMemoryStoreOptions) {
    this.workspaceDir = path.resolve(options.workspaceDir);
    this.coreMaxChars = options.coreMaxChars ?? 2000;
    this.rotateBytes = options.rotateBytes ?? DEFAULT_ROTATE_BYTES;
    this.#sessionsDir = path.resolve(options.sessionsDir ?? defaultSessionsDir(this.workspaceDir));
  }

  /** Where session memories live; the memory plugin moves it to a temp folder when sessions are not durable. */
  get sessionsDir(): string { return this.#store?.sessionsDir ?? this.#sessionsDir; }
  set sessionsDir(dir: string) {
    this.#sessionsDir = dir;
    if (this.#store) this.#store.sessionsDir = dir;
  }

  /** The store itself, loaded (once) on first use. */
  loaded(): Promise<Store> {
    this.#loading ??= import('./file-store.ts').then(({ FileMemoryStore }) => {
      this.#store = new FileMemoryStore({ ...this.options, sessionsDir: this.#sessionsDir });
      return this.#store;
    });
    return this.#loading;
  }

  #use<R>(call: (store: Store) => Promise<R>): Promise<R> {
    return this.#store ? call(this.#store) : this.loaded().then(call);
  }

  paths(agent: string): { agent: string; shared: string } { return agentPaths(this.workspaceDir, agent); }
  sessionDir(session: string): string { return sessionDirOf(this.sessionsDir, session); }
  pathFor(...a: Parameters<Store['pathFor']>) { return this.#use((s) => s.pathFor(...a)); }
  fileOf(...a: Parameters<Store['fileOf']>) { return this.#use((s) => s.fileOf(...a)); }
  load(...a: Parameters<Store['load']>) { return this.#use((s) => s.load(...a)); }
  read(...a: Parameters<Store['read']>) { return this.#use((s) => s.read(...a)); }
  save(...a: Parameters<Store['save']>) { return this.#use((s) => s.save(...a)); }
  saveEntry(...a: Parameters<Store['saveEntry']>) { return this.#use((s) => s.saveEntry(...a)); }
  sources(...a: Parameters<Store['sources']>) { return this.#use((s) => s.sources(...a)); }
  recall(...a: Parameters<Store['recall']>) { return this.#use((s) => s.recall(...a)); }
  checkpoint(...a: Parameters<Store['checkpoint']>) { return this.#use((s) => s.checkpoint(...a)); }
  appendKeyed(...a: Parameters<Store['appendKeyed']>) { return this.#use((s) => s.appendKeyed(...a)); }
  removeFromAgent(...a: Parameters<Store['removeFromAgent']>) { return this.#use((s) => s.removeFromAgent(...a)); }
  forgetSession(...a: Parameters<Store['forgetSession']>) { return this.#use((s) => s.forgetSession(...a)); }
}
