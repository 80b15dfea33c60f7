"""Writers that turn results into files people and CI systems read (HTML, markdown, CSV, JUnit)."""
