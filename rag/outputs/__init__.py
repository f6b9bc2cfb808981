"""The answer stages' typed outputs, below the stages that make and read them: BuiltContext
(context), GeneratedAnswer and GenerateOutput (generate), GroundingReport and GroundedAnswer
(ground). A later stage, turn, systems and the semantic cache read them without importing the
stage that produces them."""
