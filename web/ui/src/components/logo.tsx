import { site } from "../config/site";

/** The mark (public/icon.svg, inline so the header paints without a request) and the wordmark. */
export function Logo() {
  return (
    <>
      <svg className="logo-mark" viewBox="0 0 64 64" width="32" height="32" aria-hidden="true">
        <defs>
          <linearGradient id="logo-bg" x1="0" y1="0" x2="1" y2="1">
            <stop offset="0" stopColor="#7569da" />
            <stop offset="1" stopColor="#3838ab" />
          </linearGradient>
        </defs>
        <rect width="64" height="64" rx="15" fill="url(#logo-bg)" />
        <rect x="11" y="18" width="36" height="26" rx="4" fill="#fff" />
        <path d="M13 21l16 12 16-12" fill="none" stroke="#4040bf" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
        <circle cx="45" cy="43" r="12" fill="#ffbf00" stroke="#fff" strokeWidth="3" />
        <path d="M45 36.5V43l4 2.5" fill="none" stroke="#3f2d00" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      <span className="wordmark">
        {site.name.slice(0, 4)}
        <span>{site.name.slice(4)}</span>
      </span>
    </>
  );
}
