import { Icon } from "./icons";
import { Modal } from "./modal";
import { AccountLinks, PageLinks } from "./nav-links";

// In the drawer's own chunk: the home page does not carry it.
function CloseIcon() {
  return (
    <Icon>
      <path d="M18 6 6 18M6 6l12 12" />
    </Icon>
  );
}

/** The small-screen menu: a modal panel from the right, 250 px wide (SPEC.md section 2). */
export default function Drawer({ onClose }: { onClose: () => void }) {
  return (
    <Modal label="Menu" className="drawer" onClose={onClose}>
      <article>
        <button type="button" className="link-button drawer-close" onClick={onClose} aria-label="Close menu">
          <CloseIcon />
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
