import { useParams } from "react-router";
import type { SettingsSection } from "../../config/paths";
import { SettingsPage, sectionTitles } from "../../features/settings/components/settings-page";
import { useDocumentTitle } from "../../lib/document-title";

const isSection = (value: string | undefined): value is SettingsSection =>
  value !== undefined && Object.hasOwn(sectionTitles, value);

export function Component() {
  const params = useParams();
  // Any other section shows the general settings.
  const section = isSection(params.section) ? params.section : "general";
  useDocumentTitle("Settings");
  return <SettingsPage section={section} />;
}
