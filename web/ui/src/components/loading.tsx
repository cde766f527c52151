export function Loading() {
  return <main className="container loading" aria-busy="true" aria-label="Loading" />;
}
