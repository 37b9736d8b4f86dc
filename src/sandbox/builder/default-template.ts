/**
 * GET /api/templates/default: the base payload of a create (spec 02). Its
 * contents "change over time" and are not shown; the sandbox's template is a
 * one-page form. It names no collection (`workspaceUid`) and no theme: the
 * caller adds the collection, and without `themeId` the create uses a theme
 * of the collection or creates a default one.
 */
import type { DefaultTemplate } from '../../platform/schemas/builder-interactions.ts';

export const DEFAULT_TEMPLATE_JSON_VERSION = 3;

export function defaultTemplate(): DefaultTemplate {
  return {
    name: 'Untitled interaction',
    editorCanvasSizeType: 'mobile1',
    jsonVersion: DEFAULT_TEMPLATE_JSON_VERSION,
    templateName: 'default',
    project: {
      views: [
        {
          uid: 'view-1',
          title: 'Start',
          elements: [
            { type: 'text', name: 'headline', text: 'Hello!' },
            { type: 'textinput', name: 'email', label: 'Email' },
            { type: 'button', name: 'submit', label: 'Send', action: 'submit' },
          ],
        },
      ],
    },
  };
}
