/** A centered spinner inside a page, while its data, its user or its code is on the way. */
export function Spinner({ label = "Loading" }: { label?: string }) {
  return <div className="loading" aria-busy="true" aria-label={label} />;
}
