import { NavLink } from "react-router";
import { paramTitle } from "../../../config/pages";
import { paths, type LegalSection } from "../../../config/paths";

const sections: LegalSection[] = ["terms-of-service", "privacy-policy"];

// Placeholder texts (SPEC.md: the legal texts are template placeholders), written to read like the real ones.
const texts: Record<LegalSection, string[]> = {
  "terms-of-service": [
    "These terms govern your use of Sendlater. By creating an account you agree to them. You keep every right to what you write; you give us only the permission we need to store your messages and deliver them to the recipients you name, on the dates you choose.",
    "You are responsible for what you send and for having the right to send it to its recipient. Messages that are unlawful, or that harass or deceive their recipient, are not allowed, and we may stop delivering them and close the account that wrote them.",
    "We deliver each message by email on its delivery date unless you postpone it, pause it or delete it. Email can fail for reasons outside our control; when a delivery fails after several attempts we tell you. Paid plans renew monthly and can be cancelled at any time from the billing settings.",
  ],
  "privacy-policy": [
    "We collect what the service needs: your email address, your name if you give it, your time zone, and the messages you write with their recipients. Message titles, bodies and recipients are encrypted when stored.",
    "We use this information only to run Sendlater: to sign you in, to remind you before a delivery, and to deliver your messages. We do not sell it and we do not show advertising. Payment details are handled by our card provider and never reach our servers.",
    "You can ask for a copy of everything we hold about you, or for your account and its messages to be deleted, at any time through the contact page.",
  ],
};

export function LegalPage({ section }: { section: LegalSection }) {
  return (
    <article className="legal">
      <nav aria-label="Legal">
        <ul>
          {sections.map((item) => (
            <li key={item}>
              <NavLink to={paths.legal.href(item)}>{paramTitle("legal", item)}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <h1>{paramTitle("legal", section)}</h1>
      <p>
        <small>Last updated October 5th, 2021</small>
      </p>
      {texts[section].map((paragraph) => (
        <p key={paragraph.slice(0, 24)}>{paragraph}</p>
      ))}
    </article>
  );
}
