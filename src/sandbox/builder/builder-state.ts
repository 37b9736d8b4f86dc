/**
 * The builder's part of the sandbox world: collections, themes and
 * interactions, one instance per sandbox (looked up with `builderStateOf`),
 * and the access rules shared by every builder route.
 *
 * A collection belongs to one organization; when it is shared with a partner
 * organization the partner may read it, and also change its interactions when
 * `sharedWithPartnerReadwrite` is true. Everything else is "not found" to
 * other organizations, so their IDs are not revealed.
 */
import type { SandboxState } from '../state.ts';
import { SandboxNotFoundError } from '../errors.ts';
import type { CollectionRecord, InteractionRecord, ThemeRecord } from './model.ts';

export type Access = 'read' | 'write';

export class BuilderState {
  readonly collections = new Map<number, CollectionRecord>();
  readonly themes = new Map<number, ThemeRecord>();
  /** By UUID. */
  readonly interactions = new Map<string, InteractionRecord>();
  private lastCollectionId = 0;
  private lastThemeId = 0;
  private lastLegacyId = 0;

  nextCollectionId(): number {
    return ++this.lastCollectionId;
  }

  nextThemeId(): number {
    return ++this.lastThemeId;
  }

  nextLegacyId(): number {
    return ++this.lastLegacyId;
  }

  addTheme(collectionId: number, name: string): ThemeRecord {
    const theme = { id: this.nextThemeId(), collectionId, name };
    this.themes.set(theme.id, theme);
    return theme;
  }

  themesOf(collectionId: number): ThemeRecord[] {
    return [...this.themes.values()].filter((t) => t.collectionId === collectionId);
  }

  interactionsOf(collectionId: number): InteractionRecord[] {
    return [...this.interactions.values()].filter((i) => i.collectionId === collectionId);
  }

  /** A collection `organizationId` may use, or 404. */
  requireCollection(id: number, organizationId: string, access: Access): CollectionRecord {
    const collection = this.collections.get(id);
    if (collection === undefined || !mayAccess(collection, organizationId, access)) {
      throw new SandboxNotFoundError('Collection not found.');
    }
    return collection;
  }

  /** By UUID or by integer ID (both name an interaction in the paths), or 404. */
  requireInteraction(idOrUuid: string, organizationId: string, access: Access): InteractionRecord {
    const interaction = this.findInteraction(idOrUuid);
    const collection = interaction && this.collections.get(interaction.collectionId);
    if (interaction === undefined || collection === undefined || !mayAccess(collection, organizationId, access)) {
      throw new SandboxNotFoundError('Interaction not found.');
    }
    return interaction;
  }

  /** Interactions `organizationId` may read. */
  visibleInteractions(organizationId: string): InteractionRecord[] {
    return [...this.interactions.values()].filter((i) => {
      const collection = this.collections.get(i.collectionId);
      return collection !== undefined && mayAccess(collection, organizationId, 'read');
    });
  }

  private findInteraction(idOrUuid: string): InteractionRecord | undefined {
    const byUuid = this.interactions.get(idOrUuid);
    if (byUuid !== undefined || !/^\d+$/.test(idOrUuid)) return byUuid;
    const legacyId = Number(idOrUuid);
    for (const interaction of this.interactions.values()) if (interaction.legacyId === legacyId) return interaction;
    return undefined;
  }
}

export function mayAccess(collection: CollectionRecord, organizationId: string, access: Access): boolean {
  if (collection.organizationId === organizationId) return true;
  if (collection.sharedWithPartnerOrganizationUid !== organizationId) return false;
  return access === 'read' || collection.sharedWithPartnerReadwrite;
}

const states = new WeakMap<SandboxState, BuilderState>();

/** The builder state of one sandbox (created on first use). */
export function builderStateOf(state: SandboxState): BuilderState {
  let builder = states.get(state);
  if (builder === undefined) {
    builder = new BuilderState();
    states.set(state, builder);
  }
  return builder;
}
