// Where a change to a link is told, once it is committed: the redirect cache listens
// here, so the routes that change links know of no listener. Other instances hear of
// changes through the store (PostgreSQL's notices) instead, and webhooks through the
// outbox the store writes in the change's own transaction.

export type LinkEvent =
  | { kind: 'created'; code: string; domainId: number }
  | { kind: 'updated'; code: string; domainId: number }
  | { kind: 'deleted'; code: string; domainId: number };

export type LinkListener = (event: LinkEvent) => void;

export class LinkEvents {
  private readonly listeners = new Set<LinkListener>();

  /** Returns the unsubscribe. */
  on(listener: LinkListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: LinkEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
