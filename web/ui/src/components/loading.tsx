export function Loading() {
  return <main className="container loading" aria-busy="true" aria-label="Loading" />;
}

/** A centered spinner inside a page, while its data or its user is on the way. */
export function Spinner({ label = "Loading" }: { label?: string }) {
  return <div className="loading" aria-busy="true" aria-label={label} />;
}
