import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { paths } from "../config/paths";
import { site } from "../config/site";
import { signOut, user } from "../lib/auth";
import { showToast } from "../lib/toasts";
import { ThemeToggle } from "./theme-toggle";

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

function AccountMenu() {
  useSignals();
  const [open, setOpen] = useState(false);

  if (!user.value) {
    return <AccountLinks onDone={() => undefined} />;
  }
  return (
    <li>
      <details className="dropdown" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>{user.value.name || "Account"}</summary>
        <ul dir="rtl">
          <AccountLinks onDone={() => setOpen(false)} />
        </ul>
      </details>
    </li>
  );
}

function Drawer({ onClose }: { onClose: () => void }) {
  return (
    <div className="drawer-backdrop" onClick={onClose}>
      <aside
        className="drawer"
        aria-label="Menu"
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.key === "Escape" && onClose()}
      >
        <button type="button" className="link-button drawer-close" onClick={onClose} aria-label="Close menu" autoFocus>
          ✕
        </button>
        <nav>
          <ul>
            <AccountLinks onDone={onClose} />
          </ul>
        </nav>
      </aside>
    </div>
  );
}

export function Header() {
  const [drawerOpen, setDrawerOpen] = useState(false);

  return (
    <header className="container">
      <nav>
        <ul>
          <li>
            <Link to={paths.home.href()} className="logo">
              <img src="/favicon.svg" alt="" width={28} height={28} />
              <strong>{site.name}</strong>
            </Link>
          </li>
        </ul>
        <ul className="account-nav wide-only">
          <AccountMenu />
        </ul>
        <ul>
          <li>
            <ThemeToggle />
          </li>
          <li className="narrow-only">
            <button
              type="button"
              className="outline secondary"
              aria-label="Open menu"
              aria-expanded={drawerOpen}
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
