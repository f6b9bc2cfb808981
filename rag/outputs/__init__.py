"""The answer stages' typed outputs, below the stages that make and read them: GeneratedAnswer
(generate), GroundingReport and GroundedAnswer (ground). abstain, turn and systems read them
without importing the stages that produce them."""
