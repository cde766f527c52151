import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { Link, NavLink, useNavigate } from "react-router";
import { paths } from "../config/paths";
import { signOut, user } from "../lib/auth";
import { showToast } from "../lib/toasts";
import { Logo } from "./logo";
import { Modal } from "./modal";
import { ThemeToggle } from "./theme-toggle";

const pageLinks = [
  { label: "Pricing", to: paths.pricing.href() },
  { label: "FAQ", to: paths.faq.href() },
  { label: "About", to: paths.about.href() },
];

function PageLinks({ onDone }: { onDone: () => void }) {
  return pageLinks.map((link) => (
    <li key={link.to}>
      <NavLink to={link.to} onClick={onDone}>
        {link.label}
      </NavLink>
    </li>
  ));
}

/** The account links, shared by the wide-screen menu and the small-screen drawer. */
function AccountLinks({ onDone }: { onDone: () => void }) {
  useSignals();
  const navigate = useNavigate();

  if (!user.value) {
    return (
      <li>
        <Link to={paths.auth.href("signin")} onClick={onDone}>
          Sign in
        </Link>
      </li>
    );
  }

  const handleSignOut = () => {
    onDone();
    signOut()
      .catch((error: Error) => showToast(error.message, { kind: "error" }))
      .finally(() => navigate(paths.home.href()));
  };

  return (
    <>
      <li>
        <Link to={paths.dashboard.href()} onClick={onDone}>
          Dashboard
        </Link>
      </li>
      <li>
        <Link to={paths.settings.href("general")} onClick={onDone}>
          Settings
        </Link>
      </li>
      <li>
        <button type="button" className="link-button" onClick={handleSignOut}>
          Signout
        </button>
      </li>
    </>
  );
}

/** Sign in, or the account menu with the user's name. */
function AccountMenu() {
  useSignals();
  const [open, setOpen] = useState(false);

  if (!user.value) {
    return (
      <Link to={paths.auth.href("signin")} className="sign-in">
        Sign in
      </Link>
    );
  }
  return (
    <details className="dropdown" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{user.value.name || "Account"}</summary>
      <ul dir="rtl">
        <AccountLinks onDone={() => setOpen(false)} />
      </ul>
    </details>
  );
}

/** The small-screen menu: a modal panel from the right, 250 px wide (SPEC.md section 2). */
function Drawer({ onClose }: { onClose: () => void }) {
  return (
    <Modal label="Menu" className="drawer" onClose={onClose}>
      <article>
        <button type="button" className="link-button drawer-close" onClick={onClose} aria-label="Close menu">
          ✕
        </button>
        <nav aria-label="Menu">
          <ul>
            <PageLinks onDone={onClose} />
          </ul>
          <ul>
            <AccountLinks onDone={onClose} />
          </ul>
        </nav>
      </article>
    </Modal>
  );
}

export function Header() {
  const [drawerOpen, setDrawerOpen] = useState(false);

  return (
    <header className="site-header">
      <nav className="container" aria-label="Main">
        <ul>
          <li>
            <Link to={paths.home.href()} className="logo" aria-label="Sendlater home">
              <Logo />
            </Link>
          </li>
        </ul>
        <ul className="page-nav wide-only">
          <PageLinks onDone={() => undefined} />
        </ul>
        <ul className="account-nav">
          <li className="wide-only">
            <AccountMenu />
          </li>
          <li>
            <ThemeToggle />
          </li>
          <li className="narrow-only">
            <button
              type="button"
              className="outline secondary icon-button"
              aria-label="Open menu"
              aria-expanded={drawerOpen}
              aria-haspopup="dialog"
              onClick={() => setDrawerOpen(true)}
            >
              ☰
            </button>
          </li>
        </ul>
      </nav>
      {drawerOpen && <Drawer onClose={() => setDrawerOpen(false)} />}
    </header>
  );
}
