import { site } from "../config/site";

/** The mark (public/icon.svg, also the favicon, so usually cached already) and the wordmark. */
export function Logo() {
  return (
    <>
      <img className="logo-mark" src="/icon.svg" alt="" width={32} height={32} />
      <span className="wordmark">
        {site.name.slice(0, 4)}
        <span>{site.name.slice(4)}</span>
      </span>
    </>
  );
}
