/**
 * The remote's `./views` module: what the Desk reads from every remote. Its default export is
 * `{ views, widgets }`: the Gadget form replaces the Desk's generic one, and a card on the home page.
 */
import { GadgetCount } from './GadgetCount';
import { GadgetForm } from './GadgetForm';
import { addStyles } from './styles';

// Called, not a bare `import './styles'`: a bundler may drop an import of a module it believes has no side
// effects (package.json `sideEffects`).
addStyles();

export default {
  views: { 'gadgets.Gadget': { form: GadgetForm } },
  widgets: [{ id: 'gadget-count', title: 'Gadgets', component: GadgetCount }],
};
