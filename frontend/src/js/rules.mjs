// Rules the browser client shares with the engine, in one place.
//
// LUCK_SAMPLES: how many opponents a luck estimate and the setting explorer
// draw (rules §6). It must equal the engine's (games/engine/luck.py, the
// default of luck()'s `samples`): the server refuses luck counts that do not
// add up to it, and tests/frontend/test_rules_in_step.py checks the two agree.
export const LUCK_SAMPLES = 120;
