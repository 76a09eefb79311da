// The runtime loop lives here (pace coaching, waypoints, recording), driven by the HAL.
